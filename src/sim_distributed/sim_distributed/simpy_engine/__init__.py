"""A lightweight logic engine: kinematic robots and scripted behaviour on SimPy."""
