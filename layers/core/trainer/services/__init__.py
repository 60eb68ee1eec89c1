"""The logic layer between the callers (HTTP routes, tools, data sources, the offline coach, jobs) and
the data access (trainer.store.repositories), as handler → logic → data access in
ran-isenberg/aws-lambda-handler-cookbook.

One user's data is reached through `UserDataService(db).for_user(user_id)` (trainer.services.user_data):
a facade with one small service per concern (profile, settings, locations, goals, preferences, history,
schedule, workout plans, milestones, training plans). The services own the transactions, map the
identity-provider subject to the users.id, and turn a repository's RepositoryError into the one service
error, UserDataError (trainer.services.errors). Sessions (the DynamoDB event streams) are served by
trainer.services.sessions. Per-user daily budgets and request rates are trainer.services.usage_limits.

This package imports store and domain only, never api, tools, agent(s), llm or programs. Its __init__
imports nothing, so `trainer.services.errors` and `trainer.services.models` stay cheap to import.
"""
