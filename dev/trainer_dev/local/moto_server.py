"""moto server for the local stack and the tests: DynamoDB, EventBridge and SNS on 127.0.0.1.

With a state directory (the local stack's `.local/`), DynamoDB's data survives restarts: every item
write the server accepts is appended to a journal as it happens (so even a killed process loses
nothing acknowledged), and on a clean stop the tables are written to a snapshot and the journal is
emptied. A new server loads the snapshot and replays the journal before it serves anything.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from trainer.settings import Settings
from trainer.store.dynamo_tables import aws_client, parse_template, table_definitions, time_to_live_attributes

logger = logging.getLogger(__name__)


ITEM_WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})
TARGET = re.compile(r"^DynamoDB_\d+\.(\w+)$")


def _snake(operation: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", operation).lower()


@dataclass
class DynamoJournal:
    """The local DynamoDB's durable state: a snapshot of every table plus the item writes since."""

    directory: Path
    recording: bool = False
    _file: TextIO | None = field(default=None, repr=False)

    @property
    def journal_path(self) -> Path:
        return self.directory / "dynamodb-journal.jsonl"

    @property
    def snapshot_path(self) -> Path:
        return self.directory / "dynamodb-snapshot.json"

    def record(self, operation: str, body: bytes) -> None:
        """Called for each accepted request, in the order the server applied them."""
        if not self.recording or operation not in ITEM_WRITES:
            return
        if self._file is None:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._file = self.journal_path.open("a", encoding="utf-8")
        self._file.write(json.dumps({"op": operation, "body": json.loads(body or b"{}")}) + "\n")
        self._file.flush()

    def restore(self, client: Any) -> int:
        """Loads the snapshot and replays the journal into the (empty) tables; returns the writes. A
        snapshot table the stack no longer creates is skipped."""
        applied = 0
        if self.snapshot_path.exists():
            tables: dict[str, list[dict[str, Any]]] = _with_binary(
                json.loads(self.snapshot_path.read_text("utf-8"))
            )
            existing = {
                name for page in client.get_paginator("list_tables").paginate() for name in page["TableNames"]
            }
            for table, items in tables.items():
                if table not in existing:
                    logger.warning(
                        "snapshot table %s is not created any more: %d items skipped", table, len(items)
                    )
                    continue
                for start in range(0, len(items), 25):
                    batch = [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]
                    client.batch_write_item(RequestItems={table: batch})
                    applied += len(batch)
        if self.journal_path.exists():
            for line in self.journal_path.read_text("utf-8").splitlines():
                if not line.strip():
                    continue
                entry = json.loads(line)
                try:
                    getattr(client, _snake(entry["op"]))(**_with_binary(entry["body"]))
                    applied += 1
                except Exception as exc:
                    if "ConditionalCheckFailed" not in type(exc).__name__ + str(exc):
                        raise
        self.recording = True
        return applied

    def save(self, client: Any, table_names: Iterable[str]) -> None:
        """Writes every table to the snapshot and empties the journal (a clean stop)."""
        tables: dict[str, list[dict[str, Any]]] = {}
        for table in table_names:
            items: list[dict[str, Any]] = []
            for page in client.get_paginator("scan").paginate(TableName=table):
                items.extend(page.get("Items", []))
            tables[table] = items
        self.directory.mkdir(parents=True, exist_ok=True)
        temporary = self.snapshot_path.with_suffix(".tmp")
        temporary.write_text(json.dumps(tables, default=_base64), encoding="utf-8")
        temporary.replace(self.snapshot_path)
        if self._file is not None:
            self._file.close()
            self._file = None
        self.journal_path.unlink(missing_ok=True)


def _base64(value: Any) -> str:
    """Binary attribute values (`B`, `BS`) as the wire writes them: base64 text."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _with_binary(value: Any) -> Any:
    """Wire JSON (binary values as base64 text) made fit for the boto3 client, which encodes bytes
    itself: `{"B": "<base64>"}` and `{"BS": [...]}` become bytes, everywhere in the request."""
    if isinstance(value, dict):
        if len(value) == 1 and isinstance(value.get("B"), str):
            return {"B": base64.b64decode(value["B"])}
        if len(value) == 1 and isinstance(value.get("BS"), list):
            return {"BS": [base64.b64decode(v) if isinstance(v, str) else v for v in value["BS"]]}
        return {key: _with_binary(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_with_binary(inner) for inner in value]
    return value


@dataclass
class MotoHandle:
    endpoint_url: str
    server: Any
    journal: DynamoJournal | None = None

    def restore_state(self, settings: Settings) -> int:
        """Replays the saved DynamoDB state (after the tables were created); 0 without a journal."""
        if self.journal is None:
            return 0
        return self.journal.restore(aws_client("dynamodb", settings))

    def save_state(self, settings: Settings) -> None:
        if self.journal is None or not self.journal.recording:
            return
        client = aws_client("dynamodb", settings)
        self.journal.save(client, client.list_tables().get("TableNames", []))

    def stop(self) -> None:
        self.server.stop()


def _recording(app: Callable[..., Iterable[bytes]], journal: DynamoJournal) -> Callable[..., list[bytes]]:
    """A WSGI app that passes each DynamoDB item write it served successfully to the journal."""

    def recorded(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        match = TARGET.match(environ.get("HTTP_X_AMZ_TARGET", ""))
        if match is None:
            return list(app(environ, start_response))
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = io.BytesIO(body)
        statuses: list[str] = []

        def remember(status: str, headers: Any, *args: Any) -> Any:
            statuses.append(status)
            return start_response(status, headers, *args)

        response = list(app(environ, remember))
        if statuses and statuses[0].startswith("200"):
            journal.record(match.group(1), body)
        return response

    return recorded


def _serialized_moto_server(port: int, journal: DynamoJournal | None = None) -> Any:
    """A ThreadedMotoServer whose requests run one at a time (and, with a journal, are recorded).

    moto applies conditional writes and `ADD` updates as unlocked read-modify-write, so concurrent requests
    can lose updates; real DynamoDB applies each single-item request atomically. Serialising requests gives
    the tests DynamoDB's per-request atomicity.
    """
    from moto.moto_server.threaded_moto_server import ThreadedMotoServer
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import make_server

    class SerializedMotoServer(ThreadedMotoServer):
        def _server_entry(self) -> None:
            dispatcher = DomainDispatcherApplication(create_backend_app)
            app = _recording(dispatcher, journal) if journal is not None else dispatcher
            lock = threading.Lock()

            def serialized(environ: dict[str, Any], start_response: Any) -> list[bytes]:
                with lock:
                    return list(app(environ, start_response))

            self._server = make_server(
                self._ip_address, self._port, serialized, True, request_handler=MotoRequestHandler
            )
            self._server_ready_event.set()
            self._server.serve_forever()

    return SerializedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)


def start_moto(port: int = 0, state_dir: Path | None = None) -> MotoHandle:
    """Starts a moto server on 127.0.0.1 (`port=0`: a free port) and returns its endpoint. With a
    `state_dir`, DynamoDB's data is kept there (restore it with `restore_state` once the tables
    exist; `save_state` on a clean stop)."""
    from trainer_dev.local import moto_transactions

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    moto_transactions.install()
    journal = DynamoJournal(state_dir) if state_dir is not None else None
    server = _serialized_moto_server(port, journal)
    server.start()
    host, bound_port = server.get_host_and_port()
    return MotoHandle(endpoint_url=f"http://{host}:{bound_port}", server=server, journal=journal)


def _error_code(error: Exception) -> str:
    return str(getattr(error, "response", {}).get("Error", {}).get("Code", ""))


def create_resources(settings: Settings, template_path: Path) -> None:
    """Creates the sessions and idempotency tables (with TTL) and the event bus; existing ones are kept."""
    template = parse_template(Path(template_path).read_text(encoding="utf-8"))
    dynamodb = aws_client("dynamodb", settings)
    for definition in table_definitions(template, settings):
        try:
            dynamodb.create_table(**definition)
        except Exception as exc:
            if _error_code(exc) != "ResourceInUseException":
                raise
            logger.info("table %s already exists", definition["TableName"])
        dynamodb.get_waiter("table_exists").wait(
            TableName=definition["TableName"], WaiterConfig={"Delay": 1, "MaxAttempts": 30}
        )
    for table_name, attribute in time_to_live_attributes(template, settings).items():
        try:
            dynamodb.update_time_to_live(
                TableName=table_name, TimeToLiveSpecification={"Enabled": True, "AttributeName": attribute}
            )
        except Exception as exc:
            if _error_code(exc) != "ValidationException" or "already enabled" not in str(exc):
                raise
    events = aws_client("events", settings)
    try:
        events.create_event_bus(Name=settings.event_bus_name)
    except Exception as exc:
        if _error_code(exc) != "ResourceAlreadyExistsException":
            raise


LOCAL_PUSH_PLATFORMS = {"apns": "APNS", "apns_sandbox": "APNS_SANDBOX", "fcm": "GCM"}


def create_push_applications(settings: Settings, prefix: str = "trainer-local") -> dict[str, str]:
    """One SNS platform application per device platform (moto checks no credentials), as template.yaml
    creates them from real ones: the ARN of each, by device platform. Existing ones are reused."""
    sns = aws_client("sns", settings)
    existing = {
        app["PlatformApplicationArn"].rsplit("/", 1)[-1]: app["PlatformApplicationArn"]
        for page in sns.get_paginator("list_platform_applications").paginate()
        for app in page.get("PlatformApplications", [])
    }
    arns: dict[str, str] = {}
    for platform, sns_platform in LOCAL_PUSH_PLATFORMS.items():
        name = f"{prefix}-{platform.replace('_', '-')}"
        arns[platform] = (
            existing.get(name)
            or sns.create_platform_application(
                Name=name,
                Platform=sns_platform,
                Attributes={"PlatformCredential": "local", "PlatformPrincipal": "local"},
            )["PlatformApplicationArn"]
        )
    return arns
