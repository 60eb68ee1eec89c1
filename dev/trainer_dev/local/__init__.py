"""The local stack: embedded Postgres, moto server (DynamoDB, EventBridge) and an in-process event bus."""
