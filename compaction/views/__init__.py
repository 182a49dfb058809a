"""What a learner looks at: the widgets (``views.widgets``) and the plots (``views.plots``)."""
