"""The pure core: cards, hand evaluation, the rules of a hand (``rules``), its history, equity and
the scheduler's pairing and seating. No I/O, clock or randomness: every other folder depends on it,
never the other way round."""
