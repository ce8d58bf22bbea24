"""The few exception types memlab raises; messages name the file and the field that is wrong."""


class MemlabError(Exception):
    """Base class for every error memlab raises on purpose."""


class DatasetError(MemlabError, ValueError):
    """A dataset or benchmark file is malformed; the message names the file and the field."""


class ScopeError(MemlabError, ValueError):
    """An operation would cross a user boundary (e.g. a read without a user_id)."""


class NotFoundError(MemlabError, KeyError):
    """A user, session, memory or question id does not exist."""

    def __str__(self) -> str:  # KeyError would print the message in quotes
        return str(self.args[0]) if self.args else ""


class LLMError(MemlabError, RuntimeError):
    """The LLM backend failed or returned output that does not fit the expected schema."""
