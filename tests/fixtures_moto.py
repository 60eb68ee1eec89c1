"""moto server fixtures: one ThreadedMotoServer per test session, fresh tables and bus per test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from trainer.settings import Settings
from trainer.store.dynamo_tables import aws_client
from trainer.store.sessions import DynamoSessionStore, DynamoSessionTable
from trainer_dev.local.moto_server import create_resources, start_moto

REPO_TEMPLATE = Path(__file__).resolve().parent.parent / "template.yaml"

INLINE_TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Parameters:
  Stage: {Type: String, Default: dev}
Resources:
  SessionsTable:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub "trainer-sessions-${Stage}"
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - {AttributeName: PK, AttributeType: S}
        - {AttributeName: SK, AttributeType: S}
        - {AttributeName: GSI1PK, AttributeType: S}
        - {AttributeName: GSI1SK, AttributeType: S}
      KeySchema:
        - {AttributeName: PK, KeyType: HASH}
        - {AttributeName: SK, KeyType: RANGE}
      GlobalSecondaryIndexes:
        - IndexName: GSI1
          KeySchema:
            - {AttributeName: GSI1PK, KeyType: HASH}
            - {AttributeName: GSI1SK, KeyType: RANGE}
          Projection: {ProjectionType: ALL}
      TimeToLiveSpecification: {AttributeName: expires_at, Enabled: true}
      PointInTimeRecoverySpecification: {PointInTimeRecoveryEnabled: true}
      SSESpecification: {SSEEnabled: true}
  IdempotencyTable:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - {AttributeName: id, AttributeType: S}
      KeySchema:
        - {AttributeName: id, KeyType: HASH}
      TimeToLiveSpecification: {AttributeName: expiration, Enabled: true}
  TrainerBus:
    Type: AWS::Events::EventBus
    Properties:
      Name: !Sub "trainer-${Stage}"
Outputs:
  BusArn:
    Value: !GetAtt TrainerBus.Arn
"""

_DUMMY_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def store_template_path(tmp_dir: Path) -> Path:
    """The repository's template.yaml, or the inline definitions when the template does not exist yet."""
    if REPO_TEMPLATE.exists():
        return REPO_TEMPLATE
    path = tmp_dir / "template.yaml"
    path.write_text(INLINE_TEMPLATE, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in _DUMMY_CREDENTIALS.items():
            patch.setenv(name, value)
        handle = start_moto(0)
        try:
            yield handle.endpoint_url
        finally:
            handle.stop()


@pytest.fixture
def aws_settings(moto_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    for name, value in _DUMMY_CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    suffix = uuid.uuid4().hex[:12]
    settings = Settings(
        AWS_ENDPOINT_URL=moto_endpoint,
        AWS_REGION="us-east-1",
        TRAINER_TABLE_NAME=f"sessions-{suffix}",
        TRAINER_IDEMPOTENCY_TABLE_NAME=f"idempotency-{suffix}",
        TRAINER_EVENT_BUS_NAME=f"bus-{suffix}",
    )
    create_resources(settings, store_template_path(tmp_path))
    yield settings
    dynamodb = aws_client("dynamodb", settings)
    for table in (settings.table_name, settings.idempotency_table_name):
        dynamodb.delete_table(TableName=table)
    aws_client("events", settings).delete_event_bus(Name=settings.event_bus_name)


@pytest.fixture
def session_store(aws_settings: Settings) -> DynamoSessionStore:
    """The async port; `session_store.table` is its blocking table for synchronous set-up."""
    return DynamoSessionStore(aws_settings)


@pytest.fixture
def session_table(session_store: DynamoSessionStore) -> DynamoSessionTable:
    return session_store.table
