# The two commands of the README: `make setup` (once per machine, idempotent) and `make test`.
.PHONY: setup test build bench clean

setup:
	bash scripts/setup.sh

# colcon rewrites install/setup.bash: the venv is chained into it again, as make setup does
build:
	bash -c 'source install/setup.bash && colcon --log-base log build --symlink-install --cmake-args -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DBUILD_TESTING=OFF'
	grep -q ros2_env.sh install/setup.bash || sed -i '1a # chained by make build\n. "$(CURDIR)/.venv/ros2_env.sh"' install/setup.bash

test:
	bash scripts/test.sh

bench:
	bash -c 'source install/setup.bash && for b in bench/bench_*.py; do python $$b; done'

clean:
	rm -rf build install log
