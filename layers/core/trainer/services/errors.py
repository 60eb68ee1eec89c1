"""The one error the services raise for a request they cannot serve as asked."""

from __future__ import annotations


class UserDataError(Exception):
    """Bad input, or a state the request cannot apply to (a repository's RepositoryError). The message
    is fit to show the user or the model; callers map it (a tool's error, a 422)."""


class UserDataConflict(UserDataError):
    """The change would give a row a name another of the user's rows has (a location's name)."""
