"""gnubg"""
