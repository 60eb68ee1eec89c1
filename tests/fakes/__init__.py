"""In-memory fakes of the ports, for unit tests (no I/O)."""
