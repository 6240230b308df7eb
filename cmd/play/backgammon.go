package main

// Backgammon, the game of chance, registers itself here.
import _ "tabula/games/backgammon"
