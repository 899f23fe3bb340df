"""The MuJoCo engine node."""
