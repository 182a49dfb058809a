"""How the package speaks to people: the language prose is printed in, its Japanese texts, the colours."""
