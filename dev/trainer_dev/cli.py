"""The `trainer` command line.

trainer token --user <uuid> [--ttl SECONDS]   a dev HS256 bearer token signed with TRAINER_JWT_SECRET
trainer local [--data-dir .local] [--port N]  the local stack (what `make run` starts)
trainer migrate                               apply the SQL migrations to DATABASE_URL
trainer replay <session-id> [--user <uuid>]   print a session's timeline
trainer invoke <FunctionLogicalId> -e events/<file>.json   a template function as Lambda runs it, no Docker
trainer schedule run-hourly|run-daily [--at ISO-TIME]   a program schedule now, its events dispatched here
"""

from __future__ import annotations

import argparse
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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
    local.add_argument(
        "--fake-llm",
        type=int,
        nargs="?",
        const=0,
        default=None,
        metavar="LATENCY_MS",
        help="serve the real Anthropic/OpenAI SDKs from a loopback fake in this process (ms per call)",
    )

    commands.add_parser("migrate", help="apply migrations to DATABASE_URL")

    replay = commands.add_parser("replay", help="print a session's event timeline")
    replay.add_argument("session_id")
    replay.add_argument("--user", type=_uuid, default=None, help="only if the session belongs to this user")

    invoke = commands.add_parser(
        "invoke", help="invoke a template.yaml function in a process of its own (sam local invoke, no Docker)"
    )
    invoke.add_argument("function", help="logical id in the template: ApiFunction, StreamFunction, ...")
    invoke.add_argument(
        "-e", "--event", default=None, help="event JSON file ('-': standard input; default: {})"
    )
    invoke.add_argument(
        "-t", "--template", type=Path, default=None, help="SAM template (default: template.yaml)"
    )
    invoke.add_argument(
        "--parameter-overrides", nargs="*", default=[], metavar="KEY=VALUE", help="template parameter values"
    )
    invoke.add_argument(
        "-n",
        "--env-vars",
        type=Path,
        default=None,
        help='JSON {"<LogicalId>": {VAR: value}} or {"Parameters": ...}',
    )
    invoke.add_argument(
        "--user",
        type=_uuid,
        default=None,
        help="whose token replaces `Bearer REPLACE_WITH_JWT` in the event (default: the sample user)",
    )
    invoke.add_argument(
        "--code",
        choices=["auto", "built", "source"],
        default="auto",
        help="run what `make build` made (.aws-sam/build) or the source tree (auto: the build if any)",
    )
    invoke.add_argument(
        "--build-dir",
        type=Path,
        default=None,
        help="the build to run (default: .aws-sam/build)",
    )
    invoke.add_argument(
        "--no-seed", action="store_true", help="leave the stores as they are (no sample data for events/)"
    )
    invoke.add_argument(
        "--data-dir", type=Path, default=Path(".local"), help="embedded Postgres data (shared with make run)"
    )

    schedule = commands.add_parser(
        "schedule",
        help="run a program schedule now (the running local stack's database) and dispatch its events here",
    )
    schedule.add_argument(
        "run", choices=sorted(SCHEDULE_RUNS), help="run-hourly: WeekDue; run-daily: WorkoutReady"
    )
    schedule.add_argument(
        "--at", type=_moment, default=None, help="the run's time, ISO 8601 (default: now; no offset: UTC)"
    )
    schedule.add_argument(
        "--data-dir", type=Path, default=Path(".local"), help="embedded Postgres data (shared with make run)"
    )
    schedule.add_argument(
        "--deliveries",
        type=_positive,
        default=1,
        help="deliver each published event this many times (at once)",
    )
    schedule.add_argument("--json", action="store_true", help="print one JSON report instead of lines")
    return parser


SCHEDULE_RUNS = {"run-hourly": "hourly", "run-daily": "daily"}


def _moment(value: str) -> Any:
    from trainer_dev.local.programs import parse_at

    try:
        return parse_at(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an ISO 8601 time") from None


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
    import os

    from trainer_dev.local.stack import StackOptions, default_template_path, run_local_stack

    # One EMF line per turn on the console is noise locally; POWERTOOLS_METRICS_DISABLED=false shows them.
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")

    options = StackOptions(
        data_dir=args.data_dir.resolve(),
        port=args.port,
        template_path=(args.template or default_template_path()).resolve(),
        log_level=args.log_level,
        fake_llm_latency=None if args.fake_llm is None else args.fake_llm / 1000,
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
    from trainer.chat.replay import format_timeline
    from trainer.store.models import Event
    from trainer.store.ports import SessionNotFound
    from trainer.store.sessions import DynamoSessionTable

    store = DynamoSessionTable(settings)
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


def cmd_invoke(settings: Settings, args: argparse.Namespace) -> int:
    """Prints the function's response on stdout (a web adapter function: its body as it streams);
    the function's logs and EMF metrics, and the set-up messages, go to stderr."""
    import contextlib
    import json

    from trainer_dev.local.identity import LocalIdentityProvider
    from trainer_dev.local.invoke import (
        InvokeError,
        code_source,
        invoke_function,
        load_env_vars,
        load_event,
        local_stores,
        model_passthrough,
        parse_overrides,
        template_functions,
    )
    from trainer_dev.local.samples import SAMPLE_USER_ID
    from trainer_dev.local.stack import default_template_path

    template = (args.template or default_template_path()).resolve()
    try:
        code = code_source(template, args.code, args.build_dir)
        functions = template_functions(code.template)
        if args.function not in functions:
            raise InvokeError(
                f"no function {args.function!r} in {code.template}; functions: {', '.join(functions)}"
            )
        event = load_event(args.event)
        overrides = parse_overrides(args.parameter_overrides)
        env_vars = load_env_vars(args.env_vars, args.function)
    except (InvokeError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(code.note, file=sys.stderr)
    out = sys.stdout
    with (
        contextlib.redirect_stdout(sys.stderr),  # everything but the response: logs, EMF, set-up
        local_stores(
            settings, args.data_dir.resolve(), template, seed=not args.no_seed, say=sys.stderr
        ) as stores,
        LocalIdentityProvider() as identity,
    ):
        print(f"identity provider (JWKS) on {identity.jwks_url}", file=sys.stderr)
        result = invoke_function(
            code.template,
            args.function,
            event,
            stores=stores,
            identity=identity,
            user_id=args.user or SAMPLE_USER_ID,
            parameter_overrides=overrides,
            env_overrides=env_vars,
            passthrough=model_passthrough(settings),
            body_out=out,
        )
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    if result.status is not None and result.error is None:
        print(f"\nHTTP {result.status} {result.headers.get('content-type', '')}".rstrip(), file=sys.stderr)
    else:
        print(json.dumps(result.payload), file=out)
    return 0 if result.ok else 1


def cmd_schedule(settings: Settings, args: argparse.Namespace) -> int:
    from trainer_dev.local.programs import run_schedule_command

    return run_schedule_command(
        settings,
        SCHEDULE_RUNS[args.run],
        at=args.at,
        data_dir=args.data_dir.resolve(),
        deliveries=args.deliveries,
        as_json=args.json,
        out=sys.stdout,
    )


COMMANDS = {
    "token": cmd_token,
    "local": cmd_local,
    "migrate": cmd_migrate,
    "replay": cmd_replay,
    "invoke": cmd_invoke,
    "schedule": cmd_schedule,
}


def main(argv: Sequence[str] | None = None) -> int:
    settings = get_settings()
    args = build_parser(settings).parse_args(argv)
    return COMMANDS[args.command](settings, args)


if __name__ == "__main__":
    sys.exit(main())
