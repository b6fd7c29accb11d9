"""Pipeline rules as plain functions; tasks, views, admin actions and commands call these."""
