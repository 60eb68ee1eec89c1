"""The item layout of the one sessions table: keys, ids and sequence numbers (partition
`SESSION#<id>`).

- `META`: the session (user_id, status, last_seq, totals...); `GSI1PK=USER#<uid>`, `GSI1SK=<updated_at>`
  make the sparse index that lists a user's sessions newest first. Only commits that set fields (a
  turn's last), lease-less ones and the direct updates write it (meta.py).
- `EVENT#<first seq, 10 digits>`: the log (records.py). A record (`kind=events`) holds consecutive events
  (`first` .. `last`, at most `MAX_EVENTS_PER_COMMIT`) and the state values the same commit set, as one
  JSON `body` (compressed together: a workout's tool call, artifact and states share their text). A
  marker (`kind=marker`, no events) sits at the next free slot. The newest item, the head (head.py),
  carries the lease (`holder`, `lease_until`, `released`), `state_at` (where each state key's value
  lives: a record, a `STATE#<key>#<id>` item, or `-` for deleted) and `knowledge` refs not yet in META.
  Every write goes to the head's next slot (over a marker, or after the last event) on condition
  that the slot is free or still holds the marker the writer read, so numbers stay unique and
  gap-free, records are never overwritten, and taking, renewing or releasing the lease (a marker)
  fences off a writer that lost it (lease.py). A turn's commit is ONE conditional PutItem (commit.py);
  a conflict re-reads the head (one `Limit=1` query) and tells a lost lease from a taken number.
  `last_seq` and the knowledge in context are META's plus the head's; the list view may lag by a turn
  that did not close. Deleting takes the lease and leaves its marker as a tombstone until it expires,
  so nothing lands in a deleted session.
- `STATE#<key>#<id>`: a state value set without events (`put_state`); `STATE#<key>`: one written
  before the log layout, read while the head has no pointer for the key (state.py).
- `BLOB#<id>#<part>`: parts of a payload too large for one item (codec.py).

Every item carries `expires_at` (epoch seconds, now + session_ttl_days; META's moves forward with activity).
DynamoDB deletes expired items lazily, so reads skip items whose `expires_at` is in the past (items.py).
"""

from __future__ import annotations

from typing import Any

Item = dict[str, Any]
"""An item (or a key) in DynamoDB's attribute-value form."""

SEQ_WIDTH = 10
MAX_SEQ = 10**SEQ_WIDTH - 1
MAX_ID_LENGTH = 128
MAX_EVENTS_PER_COMMIT = 80
"""Events per record; a commit with more writes several records in one transaction, and a read from
sequence n starts at the record key n - 79 so it finds the record holding n."""
META = "META"


def session_pk(session_id: str) -> str:
    return f"SESSION#{session_id}"


def event_sk(seq: int) -> str:
    return f"EVENT#{seq:0{SEQ_WIDTH}d}"


def state_sk(key: str) -> str:
    return f"STATE#{key}"


def valid_id(value: object) -> bool:
    """A session id or state key the table takes: a printable string of at most MAX_ID_LENGTH."""
    return isinstance(value, str) and 0 < len(value) <= MAX_ID_LENGTH and value.isprintable()
