"""JupyterLab settings for the course, passed by `make lab` with --config.

Serves on 127.0.0.1 only, roots the file browser at the repository, and turns off the news
pop-up and the update check (the course needs no network). JupyterLab's own language follows the
edition: ``lab-settings/en`` (English, the default here) or ``lab-settings/ja`` (Japanese, with the
language pack the course extra installs), which ``python -m compaction.course lab --lang`` picks
with ``--LabApp.app_settings_dir``. These are defaults for this server only (``overrides.json``):
the user's own settings, in ``~/.jupyter/lab/user-settings``, are neither read into other projects
nor written. Leaves kernels and themes alone.
"""

from pathlib import Path

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file

c.ServerApp.ip = "127.0.0.1"
c.ServerApp.root_dir = str(Path(__file__).resolve().parent.parent)
c.LabApp.news_url = None
c.LabApp.check_for_updates_class = "jupyterlab.NeverCheckForUpdate"
# containers and Binder often run as root; the server still listens on loopback only
c.ServerApp.allow_root = True
# the course's setting defaults (overrides.json): never ask about news, never check for updates,
# JupyterLab in the edition's language
c.LabApp.app_settings_dir = str(Path(__file__).resolve().parent / "lab-settings" / "en")
