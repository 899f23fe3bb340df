"""Contracts shared by the engines, the bridge, the referee and the ROS layer.

Why a package of its own: an engine must not import the wire layer, and the wire layer must
not import an engine, yet both speak of the same percept, field and names. Each contract is
written here once; encoders, converters and drawings derive from it. Nothing here imports
ROS, sockets or file formats.
"""
