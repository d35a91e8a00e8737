"""value"""
