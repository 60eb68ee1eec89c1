"""moto server for the local stack and the tests: DynamoDB and EventBridge on 127.0.0.1."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trainer.settings import Settings
from trainer.store.dynamo_tables import aws_client, parse_template, table_definitions, time_to_live_attributes

logger = logging.getLogger(__name__)


@dataclass
class MotoHandle:
    endpoint_url: str
    server: Any

    def stop(self) -> None:
        self.server.stop()


def _serialized_moto_server(port: int) -> Any:
    """A ThreadedMotoServer whose requests run one at a time.

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
            app = DomainDispatcherApplication(create_backend_app)
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


def start_moto(port: int = 0) -> MotoHandle:
    """Starts a moto server on 127.0.0.1 (`port=0`: a free port) and returns its endpoint."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = _serialized_moto_server(port)
    server.start()
    host, bound_port = server.get_host_and_port()
    return MotoHandle(endpoint_url=f"http://{host}:{bound_port}", server=server)


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
