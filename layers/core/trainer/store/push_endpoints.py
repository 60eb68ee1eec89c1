"""SNS platform endpoints deleted for an account deletion (trainer.services.devices.DeviceEndpointEraser).

The API's only SNS call: its role is granted `sns:DeleteEndpoint` on this stack's endpoints and nothing
else of SNS (creating, refreshing and publishing to endpoints is the Notifier's, trainer.jobs.sns). The
client is made on the first deletion, so a cold start that deletes no account never builds it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from trainer.settings import FunctionSettings
from trainer.store.dynamo_tables import aws_client

GONE = frozenset({"NotFound", "NotFoundException"})
"""The error codes of an endpoint already deleted: a repeated deletion's success."""


class SnsEndpoints:
    def __init__(self, settings: FunctionSettings, client: Any = None) -> None:
        self._settings = settings
        self._client = client

    async def delete_endpoint(self, endpoint_arn: str) -> None:
        """Deletes the endpoint; one already gone is not an error (SNS's DeleteEndpoint is idempotent,
        but an endpoint of a deleted platform application answers NotFound)."""
        await asyncio.to_thread(self._delete, endpoint_arn)

    def _delete(self, endpoint_arn: str) -> None:
        if self._client is None:
            self._client = aws_client("sns", self._settings)
        try:
            self._client.delete_endpoint(EndpointArn=endpoint_arn)
        except Exception as exc:
            if str(getattr(exc, "response", {}).get("Error", {}).get("Code", "")) not in GONE:
                raise
