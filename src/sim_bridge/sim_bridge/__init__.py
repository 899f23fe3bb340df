"""Legacy TCP bridge: SimSpark and rcsssmj S-expression dialects, agent and monitor ports, service port."""
