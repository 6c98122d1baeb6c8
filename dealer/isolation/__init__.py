"""A bot's process and its confinement: the bubblewrap sandbox, the launcher that applies the limits
inside it, and ``processes``, which starts, watches and stops a bot."""
