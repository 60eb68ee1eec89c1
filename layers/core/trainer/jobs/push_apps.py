"""The SNS platform applications of the stack (a CloudFormation custom resource: CloudFormation has no
resource type for them).

`Custom::SnsPlatformApplication` with properties `Name`, `Platform` (`APNS`, `APNS_SANDBOX`, `GCM`),
`SecretArn` (the Secrets Manager secret holding the credentials) and `Revision` (change it to make the
stack read a rotated secret again). The secret is read when the resource is created or updated, never
written to the template or a log:

- APNs, token-based (recommended): `{"signing_key": "-----BEGIN PRIVATE KEY-----...", "key_id": "...",
  "team_id": "...", "bundle_id": "com.example.app"}`; certificate-based: `{"certificate": "...",
  "private_key": "..."}`;
- FCM (HTTP v1): the Firebase service account's JSON key file as it is (or `{"service_account": {...}}`).

The physical id is the application's ARN (attribute `Arn`). Renaming or changing the platform creates a
new application (CloudFormation then deletes the old one); a credential change updates it in place.
"""

from __future__ import annotations

import json
import logging
import re
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from trainer.settings import FunctionSettings
from trainer.store.dynamo_tables import aws_client

logger = logging.getLogger(__name__)

PLATFORMS = ("APNS", "APNS_SANDBOX", "GCM")
APPLICATION_ARN = re.compile(
    r"^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:app/(APNS|APNS_SANDBOX|GCM)/[\w.-]{1,256}$"
)
NAME = re.compile(r"^[\w.-]{1,256}$")
RESPONSE_TIMEOUT_SECONDS = 10


class CredentialsError(ValueError):
    """The secret does not hold credentials of the platform's shape (the message names no secret value)."""


def platform_attributes(platform: str, secret: str) -> dict[str, str]:
    """CreatePlatformApplication's attributes for a platform from its secret's string."""
    try:
        data: Any = json.loads(secret)
    except json.JSONDecodeError:
        raise CredentialsError(f"the {platform} secret is not JSON") from None
    if not isinstance(data, dict):
        raise CredentialsError(f"the {platform} secret must be a JSON object")
    if platform == "GCM":
        account = data.get("service_account", data)
        if isinstance(account, str):
            account = json.loads(account)
        if not isinstance(account, dict) or account.get("type") != "service_account":
            raise CredentialsError(
                "the FCM secret must be a Firebase service account key (type service_account)"
            )
        return {"PlatformCredential": json.dumps(account)}
    if platform not in ("APNS", "APNS_SANDBOX"):
        raise CredentialsError(f"unknown platform {platform!r}: one of {', '.join(PLATFORMS)}")
    if all(data.get(k) for k in ("signing_key", "key_id", "team_id", "bundle_id")):
        return {
            "PlatformCredential": str(data["signing_key"]),
            "PlatformPrincipal": str(data["key_id"]),
            "ApplePlatformTeamID": str(data["team_id"]),
            "ApplePlatformBundleID": str(data["bundle_id"]),
        }
    if data.get("certificate") and data.get("private_key"):
        return {"PlatformPrincipal": str(data["certificate"]), "PlatformCredential": str(data["private_key"])}
    raise CredentialsError(
        f"the {platform} secret needs signing_key, key_id, team_id and bundle_id (token-based) or"
        " certificate and private_key"
    )


@dataclass(frozen=True)
class Clients:
    sns: Any
    secrets: Any

    @classmethod
    def from_settings(cls, settings: FunctionSettings) -> Clients:
        return cls(sns=aws_client("sns", settings), secrets=aws_client("secretsmanager", settings))


def put_response(url: str, body: Mapping[str, Any]) -> None:
    """PUT the custom resource's response to the pre-signed URL CloudFormation gave."""
    data = json.dumps(body).encode("utf-8")
    if not url.startswith(("https://", "http://")):
        raise ValueError("the ResponseURL is not an http(s) URL")
    request = urllib.request.Request(
        url, data=data, method="PUT", headers={"Content-Type": "", "Content-Length": str(len(data))}
    )
    with urllib.request.urlopen(request, timeout=RESPONSE_TIMEOUT_SECONDS) as response:
        response.read()


def apply(event: Mapping[str, Any], clients: Clients) -> tuple[str, dict[str, str]]:
    """The request carried out: the physical id and the attributes to return."""
    kind = event["RequestType"]
    properties = dict(event.get("ResourceProperties") or {})
    physical = str(event.get("PhysicalResourceId") or "")
    if kind == "Delete":
        if APPLICATION_ARN.match(physical):
            try:
                clients.sns.delete_platform_application(PlatformApplicationArn=physical)
            except Exception as exc:
                if "NotFound" not in str(getattr(exc, "response", {}).get("Error", {}).get("Code", "")):
                    raise
        return physical, {}
    name, platform = str(properties.get("Name", "")), str(properties.get("Platform", ""))
    if not NAME.match(name):
        raise CredentialsError("Name must be 1-256 letters, digits, '.', '_' or '-'")
    if platform not in PLATFORMS:
        raise CredentialsError(f"Platform must be one of {', '.join(PLATFORMS)}")
    secret = clients.secrets.get_secret_value(SecretId=str(properties.get("SecretArn", "")))["SecretString"]
    attributes = platform_attributes(platform, secret)
    old = dict(event.get("OldResourceProperties") or {})
    same_app = old.get("Name") == name and old.get("Platform") == platform
    if kind == "Update" and same_app and APPLICATION_ARN.match(physical):
        clients.sns.set_platform_application_attributes(
            PlatformApplicationArn=physical, Attributes=attributes
        )
        return physical, {"Arn": physical}
    arn = str(
        clients.sns.create_platform_application(Name=name, Platform=platform, Attributes=attributes)[
            "PlatformApplicationArn"
        ]
    )
    return arn, {"Arn": arn}


def handle_custom_resource(
    event: Mapping[str, Any],
    context: Any,
    clients: Clients,
    respond: Callable[[str, Mapping[str, Any]], None] = put_response,
) -> dict[str, Any]:
    """Carry out the request and always answer CloudFormation (a stack otherwise waits an hour)."""
    body: dict[str, Any] = {
        "StackId": event.get("StackId"),
        "RequestId": event.get("RequestId"),
        "LogicalResourceId": event.get("LogicalResourceId"),
    }
    try:
        physical, data = apply(event, clients)
        body.update(
            Status="SUCCESS", PhysicalResourceId=physical or f"none-{event.get('RequestId')}", Data=data
        )
    except Exception as exc:
        logger.exception("platform application %s failed", event.get("RequestType"))
        reason = str(exc) if isinstance(exc, CredentialsError) else f"{type(exc).__name__}: see the logs"
        body.update(
            Status="FAILED",
            Reason=reason[:1000],
            PhysicalResourceId=str(event.get("PhysicalResourceId") or f"failed-{event.get('RequestId')}"),
        )
    try:
        respond(str(event.get("ResponseURL", "")), body)
    except Exception:
        logger.exception("the custom resource response could not be sent")
    return {"Status": body["Status"], "PhysicalResourceId": body["PhysicalResourceId"]}
