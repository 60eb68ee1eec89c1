"""The custom resource that creates the stack's SNS platform applications, on moto's Secrets Manager and
SNS, answering CloudFormation by PUT to a response URL (a loopback HTTP server here): created from the
secret's credentials, updated in place, replaced on a rename, deleted; a secret of the wrong shape fails
the resource with a reason that names no secret value, and CloudFormation is answered either way."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest
from moto.sns.models import sns_backends
from trainer.jobs.push_apps import Clients, CredentialsError, handle_custom_resource, platform_attributes
from trainer.settings import Settings
from trainer.store.dynamo_tables import aws_client

SERVICE_ACCOUNT = {
    "type": "service_account",
    "project_id": "trainer-test",
    "private_key": "-----BEGIN PRIVATE KEY-----\nMIIE...\n-----END PRIVATE KEY-----\n",
    "client_email": "push@trainer-test.iam.gserviceaccount.com",
}
APNS_TOKEN_KEY = {
    "signing_key": "-----BEGIN PRIVATE KEY-----\nMIGT...\n-----END PRIVATE KEY-----",
    "key_id": "ABC123DEFG",
    "team_id": "TEAM123456",
    "bundle_id": "com.example.trainer",
}


class Responses:
    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.url = ""


@pytest.fixture
def cloudformation() -> Iterator[Responses]:
    """A loopback server standing where CloudFormation's pre-signed response URL points."""
    received = Responses()

    class Handler(BaseHTTPRequestHandler):
        def do_PUT(self) -> None:
            length = int(self.headers["Content-Length"])
            received.bodies.append(json.loads(self.rfile.read(length)))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    received.url = f"http://127.0.0.1:{server.server_port}/response"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield received
    server.shutdown()
    server.server_close()


@pytest.fixture
def clients(aws_settings: Settings) -> Clients:
    return Clients.from_settings(aws_settings)


def secret(settings: Settings, value: Any) -> str:
    created = aws_client("secretsmanager", settings).create_secret(
        Name=f"trainer/push-{uuid.uuid4().hex[:8]}", SecretString=json.dumps(value)
    )
    return str(created["ARN"])


def request(kind: str, url: str, **properties: Any) -> dict[str, Any]:
    return {
        "RequestType": kind,
        "ResponseURL": url,
        "StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/trainer-test/1",
        "RequestId": str(uuid.uuid4()),
        "LogicalResourceId": "FcmPlatformApplication",
        "ResourceType": "Custom::SnsPlatformApplication",
        "ResourceProperties": {
            "ServiceToken": "arn:aws:lambda:us-east-1:123456789012:function:f",
            **properties,
        },
    }


def application(arn: str) -> Any:
    return sns_backends["123456789012"]["us-east-1"].applications.get(arn)


def test_an_application_is_created_updated_replaced_and_deleted(
    aws_settings: Settings, clients: Clients, cloudformation: Responses
) -> None:
    name = f"trainer-test-{uuid.uuid4().hex[:8]}-fcm"
    fcm = secret(aws_settings, SERVICE_ACCOUNT)
    created = handle_custom_resource(
        request("Create", cloudformation.url, Name=name, Platform="GCM", SecretArn=fcm), None, clients
    )
    arn = created["PhysicalResourceId"]
    assert created["Status"] == "SUCCESS" and arn.endswith(f":app/GCM/{name}")
    assert json.loads(application(arn).attributes["PlatformCredential"]) == SERVICE_ACCOUNT
    answer = cloudformation.bodies[-1]
    assert (answer["Status"], answer["PhysicalResourceId"], answer["Data"]) == ("SUCCESS", arn, {"Arn": arn})

    rotated = secret(aws_settings, {**SERVICE_ACCOUNT, "private_key": "rotated"})
    update = request("Update", cloudformation.url, Name=name, Platform="GCM", SecretArn=rotated)
    update.update(
        PhysicalResourceId=arn, OldResourceProperties={"Name": name, "Platform": "GCM", "SecretArn": fcm}
    )
    assert handle_custom_resource(update, None, clients)["PhysicalResourceId"] == arn, "updated in place"
    assert json.loads(application(arn).attributes["PlatformCredential"])["private_key"] == "rotated"

    renamed = request("Update", cloudformation.url, Name=f"{name}-2", Platform="GCM", SecretArn=rotated)
    renamed.update(PhysicalResourceId=arn, OldResourceProperties={"Name": name, "Platform": "GCM"})
    replacement = handle_custom_resource(renamed, None, clients)["PhysicalResourceId"]
    assert replacement != arn and application(replacement) is not None

    for physical in (arn, replacement):
        deleted = request("Delete", cloudformation.url, Name=name, Platform="GCM", SecretArn=rotated)
        deleted["PhysicalResourceId"] = physical
        assert handle_custom_resource(deleted, None, clients)["Status"] == "SUCCESS"
        assert application(physical) is None
    assert [b["Status"] for b in cloudformation.bodies] == ["SUCCESS"] * 5


def test_apns_token_credentials_become_the_applications_attributes() -> None:
    assert platform_attributes("APNS", json.dumps(APNS_TOKEN_KEY)) == {
        "PlatformCredential": APNS_TOKEN_KEY["signing_key"],
        "PlatformPrincipal": "ABC123DEFG",
        "ApplePlatformTeamID": "TEAM123456",
        "ApplePlatformBundleID": "com.example.trainer",
    }
    certificate = {
        "certificate": "-----BEGIN CERTIFICATE-----",
        "private_key": "-----BEGIN RSA PRIVATE KEY-----",
    }
    assert platform_attributes("APNS_SANDBOX", json.dumps(certificate)) == {
        "PlatformPrincipal": certificate["certificate"],
        "PlatformCredential": certificate["private_key"],
    }


def test_a_secret_of_the_wrong_shape_fails_the_resource_without_echoing_it(
    aws_settings: Settings, clients: Clients, cloudformation: Responses
) -> None:
    leaked = "do-not-echo-this-key"
    wrong = secret(aws_settings, {"key_id": leaked})
    result = handle_custom_resource(
        request("Create", cloudformation.url, Name="trainer-test-apns", Platform="APNS", SecretArn=wrong),
        None,
        clients,
    )
    (answer,) = cloudformation.bodies
    assert result["Status"] == answer["Status"] == "FAILED"
    assert "signing_key" in answer["Reason"] and leaked not in json.dumps(answer)
    assert answer["PhysicalResourceId"].startswith("failed-"), "a Delete after this removes nothing"
    with pytest.raises(CredentialsError):
        platform_attributes("GCM", json.dumps({"type": "authorized_user"}))


def test_an_unreachable_response_url_is_logged_not_raised(aws_settings: Settings, clients: Clients) -> None:
    fcm = secret(aws_settings, SERVICE_ACCOUNT)
    name = f"trainer-test-{uuid.uuid4().hex[:8]}"
    result = handle_custom_resource(
        request("Create", "http://127.0.0.1:9/nowhere", Name=name, Platform="GCM", SecretArn=fcm),
        None,
        clients,
    )
    assert result["Status"] == "SUCCESS"
