"""Table definitions come from the CloudFormation template, intrinsic short tags included."""

from __future__ import annotations

import boto3
import pytest
from trainer.settings import Settings
from trainer.store.dynamo_tables import (
    TemplateError,
    aws_client,
    parse_template,
    table_definitions,
    time_to_live_attributes,
)

from tests.fixtures_moto import INLINE_TEMPLATE

SETTINGS = Settings(TRAINER_TABLE_NAME="sessions-x", TRAINER_IDEMPOTENCY_TABLE_NAME="idem-x")


def test_short_intrinsic_tags_load_as_their_long_form() -> None:
    template = parse_template(INLINE_TEMPLATE)
    assert template["Resources"]["TrainerBus"]["Properties"]["Name"] == {"Fn::Sub": "trainer-${Stage}"}
    assert template["Outputs"]["BusArn"]["Value"] == {"Fn::GetAtt": "TrainerBus.Arn"}
    tagged = parse_template(
        "Resources:\n  A:\n    Properties: {X: !Ref B, Y: !If [C, 1, 2], Z: !GetAtt [B, Arn],"
        " W: !And [!Condition C, !Not [!Equals [!Ref B, '']]]}\n"
    )
    assert tagged["Resources"]["A"]["Properties"] == {
        "X": {"Ref": "B"},
        "Y": {"Fn::If": ["C", 1, 2]},
        "Z": {"Fn::GetAtt": ["B", "Arn"]},
        "W": {"Fn::And": [{"Condition": "C"}, {"Fn::Not": [{"Fn::Equals": [{"Ref": "B"}, ""]}]}]},
    }


def test_table_definitions_are_create_table_kwargs_named_from_settings() -> None:
    sessions, idempotency = table_definitions(parse_template(INLINE_TEMPLATE), SETTINGS)

    assert sessions["TableName"] == "sessions-x"
    assert set(sessions) == {
        "TableName",
        "AttributeDefinitions",
        "KeySchema",
        "GlobalSecondaryIndexes",
        "BillingMode",
    }
    assert sessions["BillingMode"] == "PAY_PER_REQUEST"
    assert sessions["KeySchema"] == [
        {"AttributeName": "PK", "KeyType": "HASH"},
        {"AttributeName": "SK", "KeyType": "RANGE"},
    ]
    (gsi,) = sessions["GlobalSecondaryIndexes"]
    assert gsi["IndexName"] == "GSI1"
    assert gsi["Projection"] == {"ProjectionType": "ALL"}
    assert idempotency == {
        "TableName": "idem-x",
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
    }


def test_time_to_live_attributes_per_table() -> None:
    assert time_to_live_attributes(parse_template(INLINE_TEMPLATE), SETTINGS) == {
        "sessions-x": "expires_at",
        "idem-x": "expiration",
    }


@pytest.mark.parametrize(
    "text",
    [
        "just a string",
        "Resources: {}",
        "Resources:\n  SessionsTable:\n    Type: AWS::DynamoDB::Table\n",
        "Resources:\n  SessionsTable:\n    Properties: {BillingMode: PAY_PER_REQUEST}\n",
    ],
)
def test_templates_without_the_tables_are_rejected_clearly(text: str) -> None:
    with pytest.raises(TemplateError):
        table_definitions(parse_template(text), SETTINGS)


def test_clients_follow_the_endpoint_and_use_dummy_credentials_only_on_loopback() -> None:
    local = aws_client("dynamodb", Settings(AWS_ENDPOINT_URL="http://127.0.0.1:5123", AWS_REGION="eu-west-1"))
    assert local.meta.endpoint_url == "http://127.0.0.1:5123"
    assert local.meta.region_name == "eu-west-1"
    assert local._request_signer._credentials.access_key == "testing"

    remote = aws_client("events", Settings(AWS_ENDPOINT_URL="https://events.example.com"))
    assert remote.meta.endpoint_url == "https://events.example.com"
    default = boto3.Session().get_credentials()
    credentials = remote._request_signer._credentials
    assert (credentials and credentials.access_key) == (default and default.access_key)
