"""Amazon SNS behind the delivery ports (trainer.services.delivery): mobile push through platform
endpoints, and SMS through `Publish` with a phone number.

One endpoint per device token and platform application. `CreatePlatformEndpoint` is idempotent for a
token whose endpoint has the same attributes; when SNS answers that the endpoint exists with other
attributes (it was disabled), the ARN in its message is used and the endpoint re-enabled by the caller
(AWS's token-management guidance). boto3 blocks: each call runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import Any

from trainer.services.delivery import EndpointDisabled, EndpointGone, EndpointState, PushFailed
from trainer.settings import PushSettings
from trainer.store.dynamo_tables import aws_client

EXISTING_ENDPOINT = re.compile(r"Endpoint (arn:aws[a-z-]*:sns\S+) already exists with the same [Tt]oken")
SMS_TYPE = "Transactional"
"""A workout message the user asked for: delivered even to numbers on promotional do-not-disturb lists
(and routed for reliability rather than cost)."""


def _code(error: Exception) -> str:
    return str(getattr(error, "response", {}).get("Error", {}).get("Code", ""))


def _message(error: Exception) -> str:
    return str(getattr(error, "response", {}).get("Error", {}).get("Message", "")) or str(error)


def _failure(error: Exception) -> PushFailed:
    code = _code(error)
    if code == "EndpointDisabled":
        return EndpointDisabled(_message(error))
    if code in ("NotFound", "NotFoundException"):
        return EndpointGone(_message(error))
    reason = re.sub(r"[^a-z0-9]+", "_", code.lower()).strip("_") or "sns_error"
    return PushFailed(reason[:60], _message(error)[:300])


class SnsPushGateway:
    """`trainer.services.delivery.PushGateway` and `SmsGateway` on SNS."""

    def __init__(self, applications: Mapping[str, str], client: Any) -> None:
        self._applications = dict(applications)
        self._client = client

    @classmethod
    def from_settings(cls, settings: PushSettings, client: Any = None) -> SnsPushGateway:
        return cls(settings.push_applications, client if client is not None else aws_client("sns", settings))

    def configured(self, platform: str) -> bool:
        return platform in self._applications

    async def create_endpoint(self, platform: str, token: str) -> str:
        return await asyncio.to_thread(self._create_endpoint, platform, token)

    def _create_endpoint(self, platform: str, token: str) -> str:
        try:
            response = self._client.create_platform_endpoint(
                PlatformApplicationArn=self._applications[platform], Token=token
            )
        except Exception as exc:
            existing = EXISTING_ENDPOINT.search(_message(exc)) if _code(exc) == "InvalidParameter" else None
            if existing is None:
                raise _failure(exc) from exc
            return existing.group(1)
        return str(response["EndpointArn"])

    async def endpoint(self, endpoint_arn: str) -> EndpointState | None:
        def read() -> EndpointState | None:
            try:
                attributes = self._client.get_endpoint_attributes(EndpointArn=endpoint_arn)["Attributes"]
            except Exception as exc:
                failure = _failure(exc)
                if isinstance(failure, EndpointGone):
                    return None
                raise failure from exc
            return EndpointState(
                token=str(attributes.get("Token", "")),
                enabled=str(attributes.get("Enabled", "true")).lower() == "true",
            )

        return await asyncio.to_thread(read)

    async def enable(self, endpoint_arn: str, token: str) -> None:
        def enable() -> None:
            try:
                self._client.set_endpoint_attributes(
                    EndpointArn=endpoint_arn, Attributes={"Token": token, "Enabled": "true"}
                )
            except Exception as exc:
                raise _failure(exc) from exc

        await asyncio.to_thread(enable)

    async def publish(self, endpoint_arn: str, message: str) -> str:
        def publish() -> str:
            try:
                response = self._client.publish(
                    TargetArn=endpoint_arn, Message=message, MessageStructure="json"
                )
            except Exception as exc:
                raise _failure(exc) from exc
            return str(response["MessageId"])

        return await asyncio.to_thread(publish)

    async def delete_endpoint(self, endpoint_arn: str) -> None:
        def delete() -> None:
            try:
                self._client.delete_endpoint(EndpointArn=endpoint_arn)
            except Exception as exc:
                if not isinstance(_failure(exc), EndpointGone):
                    raise

        await asyncio.to_thread(delete)

    async def send(self, phone_number: str, text: str) -> str:
        def send() -> str:
            try:
                response = self._client.publish(
                    PhoneNumber=phone_number,
                    Message=text,
                    MessageAttributes={
                        "AWS.SNS.SMS.SMSType": {"DataType": "String", "StringValue": SMS_TYPE},
                    },
                )
            except Exception as exc:
                raise _failure(exc) from exc
            return str(response["MessageId"])

        return await asyncio.to_thread(send)
