"""Persistence and the AWS adapters: the DynamoDB session/event store, the Postgres domain repositories
and the EventBridge publisher."""
