"""The one error type the tooling raises: its message names the input, what was wrong and what to do."""


class DashboardsError(Exception):
    """A failure the user can act on; the CLI prints the message and exits 1."""
