"""Persistence: the DynamoDB session/event store and Postgres domain repositories."""
