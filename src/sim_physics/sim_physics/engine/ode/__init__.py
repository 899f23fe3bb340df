"""The ODE engine node (rcssserver3d's physics library): see engine.py."""
