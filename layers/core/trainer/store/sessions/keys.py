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
  that did not close. Deleting takes the lease and leaves its marker as a tombstone (`erased`): no
  write lands after it (a lease-less one is refused, a turn's finds its lease taken), and it is indexed
  under the owner's account digest (`GSI1PK=ERASED#<digest hex>`, no user id), so an account's deletion
  finds the session after META is gone. An account's deletion deletes the tombstone too once no turn
  can still hold the lease it took over (`fence_until`, the lease's end: a turn never writes past it).
- `STATE#<key>#<id>`: a state value set without events (`put_state`); `STATE#<key>`: one written
  before the log layout, read while the head has no pointer for the key (state.py).
- `BLOB#<id>#<part>`: parts of a payload too large for one item (codec.py).
- In the user's partition, `USER#<uid>` / `SESSION#<id>`: the session's index entry, written with META
  in one transaction that checks the account's tombstone (so no session is created for a deleted
  account); read consistently, it finds a session GSI1 does not show yet. It expires with the session's
  first TTL period (GSI1 lists the session from then on).

Every item carries `expires_at` (epoch seconds, now + session_ttl_days; META's moves forward with activity).
DynamoDB deletes expired items lazily, so reads skip items whose `expires_at` is in the past (items.py).
"""

from __future__ import annotations

from typing import Any

from trainer.store.account_keys import account_digest

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


def user_pk(user_id: str) -> str:
    return f"USER#{user_id}"


def session_index_sk(session_id: str) -> str:
    """The user's index entry of a session (in `USER#<uid>`)."""
    return f"SESSION#{session_id}"


def erased_index(user_id: str) -> str:
    """The GSI1 key the tombstones of a user's deleted sessions are listed under: the account's digest,
    never the id (trainer.store.account_keys)."""
    return f"ERASED#{account_digest(user_id).hex()}"


def event_sk(seq: int) -> str:
    return f"EVENT#{seq:0{SEQ_WIDTH}d}"


def state_sk(key: str) -> str:
    return f"STATE#{key}"


def valid_id(value: object) -> bool:
    """A session id or state key the table takes: a printable string of at most MAX_ID_LENGTH."""
    return isinstance(value, str) and 0 < len(value) <= MAX_ID_LENGTH and value.isprintable()
