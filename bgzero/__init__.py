"""bgzero: teach neural networks to play backgammon by self-play."""
