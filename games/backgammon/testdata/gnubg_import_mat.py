# Imports .mat files into GNU Backgammon and writes what gnubg read.
# Run by mat_test.go as: gnubg -t -q -p gnubg_import_mat.py
# TABULA_GNUBG_IN names a file of .mat paths, one a line; for each, this
# writes to the file named by TABULA_GNUBG_OUT:
#   file PATH
#   game WINNER POINTS        (per game; WINNER X or O, gnubg's names)
#   turn PLAYER D1 D2 BOARD   (per move; BOARD the position ID before it)
#   end POSITIONID            (gnubg's position after the last game)
import os

import gnubg

# Money play without the cube: gammons count (no Jacoby rule).
gnubg.command("set jacoby off")
out = []
with open(os.environ["TABULA_GNUBG_IN"]) as f:
    paths = [line.strip() for line in f if line.strip()]
for path in paths:
    gnubg.command("import mat " + path)
    m = gnubg.match(analysis=0, boards=1, statistics=0, verbose=0)
    out.append("file " + path)
    for g in m["games"]:
        info = g["info"]
        out.append("game %s %d" % (info["winner"], info["points-won"]))
        for r in g["game"]:
            if r.get("action") != "move":
                out.append("other " + str(r.get("action")))
                continue
            d = r["dice"]
            out.append("turn %s %d %d %s" % (r["player"], d[0], d[1], r["board"]))
    out.append("end " + gnubg.positionid())
with open(os.environ["TABULA_GNUBG_OUT"], "w") as f:
    f.write("\n".join(out) + "\n")
