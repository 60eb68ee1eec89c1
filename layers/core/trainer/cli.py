"""The `trainer` command line.

trainer token --user <uuid> [--ttl SECONDS]   a dev HS256 bearer token signed with TRAINER_JWT_SECRET
trainer local [--data-dir .local] [--port N]  the local stack (what `make run` starts)
trainer migrate                               apply the SQL migrations to DATABASE_URL
trainer replay <session-id> [--user <uuid>]   print a session's timeline
"""

from __future__ import annotations

import argparse
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

from trainer.settings import Settings, get_settings

LOG_LEVELS = ["critical", "error", "warning", "info", "debug"]


def _uuid(value: str) -> str:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a UUID") from None


def _positive(value: str) -> int:
    number = int(value)
    if number <= 0:
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return number


def build_parser(settings: Settings) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trainer", description="AI personal trainer back end")
    commands = parser.add_subparsers(dest="command", required=True)

    token = commands.add_parser("token", help="mint a development bearer token (HS256)")
    token.add_argument("--user", required=True, type=_uuid, help="user id (the token's sub)")
    token.add_argument("--ttl", type=_positive, default=12 * 3600, help="lifetime in seconds (default 12 h)")

    local = commands.add_parser("local", help="run the local stack in the foreground")
    local.add_argument("--data-dir", type=Path, default=Path(".local"), help="where Postgres data is kept")
    local.add_argument("--port", type=int, default=settings.port, help="API port (default: $PORT or 8000)")
    local.add_argument("--template", type=Path, default=None, help="SAM template with the table definitions")
    local.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )

    commands.add_parser("migrate", help="apply migrations to DATABASE_URL")

    replay = commands.add_parser("replay", help="print a session's event timeline")
    replay.add_argument("session_id")
    replay.add_argument("--user", type=_uuid, default=None, help="only if the session belongs to this user")
    return parser


def cmd_token(settings: Settings, args: argparse.Namespace) -> int:
    from trainer.api.auth import mint_dev_token

    print(
        mint_dev_token(
            settings.jwt_secret.get_secret_value(),
            args.user,
            ttl_seconds=args.ttl,
            issuer=settings.jwt_issuer,
            audience=settings.jwt_audience,
        )
    )
    return 0


def cmd_local(settings: Settings, args: argparse.Namespace) -> int:
    from trainer.local.stack import StackOptions, default_template_path, run_local_stack

    options = StackOptions(
        data_dir=args.data_dir.resolve(),
        port=args.port,
        template_path=(args.template or default_template_path()).resolve(),
        log_level=args.log_level,
    )
    return run_local_stack(settings, options)


def cmd_migrate(settings: Settings, _: argparse.Namespace) -> int:
    if not settings.database_url:
        print("error: DATABASE_URL is not set", file=sys.stderr)
        return 2
    from trainer.store.migrate import apply_migrations

    applied = apply_migrations(settings.database_url)
    print("\n".join(applied) if applied else "no pending migrations")
    return 0


def cmd_replay(settings: Settings, args: argparse.Namespace) -> int:
    from trainer.agent.replay import format_timeline
    from trainer.store.models import Event
    from trainer.store.ports import SessionNotFound
    from trainer.store.sessions import DynamoSessionStore

    store = DynamoSessionStore(settings)
    try:
        if args.user:
            store.get_session(args.user, args.session_id)
        else:
            store.load_session(args.session_id)
    except SessionNotFound:
        print(f"error: session {args.session_id} not found", file=sys.stderr)
        return 1
    events: list[Event] = []
    after: int | None = 0
    while after is not None:
        page = store.read_events(args.session_id, after=after, limit=500)
        events.extend(page.events)
        after = page.next_after
    for line in format_timeline(events, args.session_id):
        print(line)
    return 0


COMMANDS = {"token": cmd_token, "local": cmd_local, "migrate": cmd_migrate, "replay": cmd_replay}


def main(argv: Sequence[str] | None = None) -> int:
    settings = get_settings()
    args = build_parser(settings).parse_args(argv)
    return COMMANDS[args.command](settings, args)


if __name__ == "__main__":
    sys.exit(main())
