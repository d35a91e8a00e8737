"""engine/bearoff"""
