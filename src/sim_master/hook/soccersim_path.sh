# puts the soccersim command on PATH (colcon environment hook)
_colcon_prepend_unique_value PATH "$COLCON_CURRENT_PREFIX/lib/sim_master"
