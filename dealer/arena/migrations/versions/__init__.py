"""One module per schema revision; each is frozen once released (a new change is a new revision)."""
