"""The base team: Nao humanoids that walk, kick, get up and play (docs/team.md)."""
