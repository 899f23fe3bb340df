# puts the sim_bridge executables on PATH (colcon environment hook), as ros2 run finds them
_colcon_prepend_unique_value PATH "$COLCON_CURRENT_PREFIX/lib/sim_bridge"
