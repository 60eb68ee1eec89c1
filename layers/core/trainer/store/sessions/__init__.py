"""The DynamoDB session/event store: `DynamoSessionTable` (table.py) does the blocking boto3 work,
`DynamoSessionStore` (store.py), the async `SessionStore` adapter, runs it in worker threads.

The item layout of the one sessions table is in keys.py; its parts: codec.py (attributes and payloads),
items.py (reads, queries and batched writes), head.py (the log's newest item), meta.py (the session's
own item), records.py (the log), lease.py, commit.py and state.py."""

from trainer.store.sessions.store import DynamoSessionStore
from trainer.store.sessions.table import DynamoSessionTable

__all__ = ["DynamoSessionStore", "DynamoSessionTable"]
