"""The exception tree: every error the dealer raises on purpose derives from ``DealerError``."""


class DealerError(Exception):
    """Base class of every deliberate dealer error."""


class IllegalActionError(DealerError):
    """An action that the rules do not allow in the current state; the state is unchanged."""


class CardError(DealerError):
    """A malformed card, or a card dealt twice."""


class ConfigError(DealerError):
    """A table, match or league configuration that is invalid; the message says where."""


class ClusterError(DealerError):
    """A cluster that cannot play a league as this machine would: a worker lacks a bot's program
    or files, or the shared output folder; one line per problem."""


class RunError(DealerError):
    """A run that cannot go on as asked (a refused resume, a bot that cannot start); the message says why."""
