package main

// Backgammon, the game of chance (issue 13), registers itself here.
import _ "tabula/games/backgammon"
