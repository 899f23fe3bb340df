from setuptools import find_packages, setup

PACKAGE = "soccer_team"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test", "test.*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + PACKAGE]),
        ("share/" + PACKAGE, ["package.xml"]),
    ],
    package_data={"soccer_team": ["*.xml"]},
    install_requires=["setuptools"],
    zip_safe=False,
    maintainer="soccersim developers",
    maintainer_email="dev@soccersim.invalid",
    description="The base team: Nao humanoids that walk, kick, get up and play, as ROS-native players.",
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
)
