"""The simulated world: the physics engines over one engine core (`engine`), the world and
model files they load (`world`), the scene monitors draw (`scene`), snapshots of it all
(`snapshot`). It knows no ROS, no sockets and no loop: sim_master drives it."""
