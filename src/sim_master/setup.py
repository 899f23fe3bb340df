from glob import glob

from setuptools import find_packages, setup

PACKAGE = "sim_master"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test", "test.*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + PACKAGE]),
        ("share/" + PACKAGE, ["package.xml"]),
        ("share/" + PACKAGE + "/hook", glob("hook/*")),
        ("share/" + PACKAGE + "/launch", glob("launch/*.xml")),
    ],
    package_data={"sim_master.monitor_web": ["static/*"]},
    install_requires=["setuptools"],
    zip_safe=False,
    maintainer="soccersim developers",
    maintainer_email="dev@soccersim.invalid",
    description="Simulation master: the loop, single and distributed mode, ROS nodes, logs, soccersim.",
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
    entry_points={"console_scripts": ["soccersim = sim_master.cli:main",
                                    "simulation_node = sim_master.cli:simulation_node"]},
)
