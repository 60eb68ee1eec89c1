"""The logic routes, tools and jobs share: usage limits (and, as it grows, user data, plans, delivery)."""
