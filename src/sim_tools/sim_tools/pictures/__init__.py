"""PNG pictures of matches: the field from above, ball heat maps."""
