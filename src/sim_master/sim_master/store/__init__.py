"""Persistence: MCAP replay logs and the Redis snapshot cache."""
