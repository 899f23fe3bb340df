"""Built-in demo team: wheeled pushers driven by behaviour trees."""
