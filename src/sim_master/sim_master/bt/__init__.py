"""Behaviour trees: BehaviorTree.CPP XML executed with py_trees."""
