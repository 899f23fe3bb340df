
from glob import glob

from setuptools import find_packages, setup

PACKAGE = "soccer_referee"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test", "test.*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + PACKAGE]),
        ("share/" + PACKAGE, ["package.xml"]),
        ("share/" + PACKAGE + "/hook", glob("hook/*")),
    ],
    install_requires=["setuptools"],
    zip_safe=False,
    maintainer="soccersim developers",
    maintainer_email="dev@soccersim.invalid",
    description="Soccer referee: play modes, rule books and the referee enforcing them; ROS 2 node.",
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
    entry_points={"console_scripts": ["referee_node = soccer_referee.ros.judge:main"]},
)
