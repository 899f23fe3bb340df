"""The two legacy wire dialects: SimSpark/rcssserver3d and rcsssmj."""
