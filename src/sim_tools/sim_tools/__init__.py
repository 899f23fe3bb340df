"""The tools around the server: the launch-file runner (`soccersim launch`), the built-in
demo team and its commands (`soccersim match`, `soccersim team`), and pictures of the field
(`soccersim snapshot`, the match's PNGs). A package of its own so the server package carries
none of it; `soccersim` loads these commands by name."""
