"""Figures from recorded results, starting no process: the records of a match, standings, ratings,
faults as the scorers read them, and ``dealer compare``'s statistics (paired samples, AIVAT, control
variates, the sequential test) and its text."""
