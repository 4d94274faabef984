"""Samuel's learners and the book-trained evaluators (one module per learner).

Nothing here prints or imports ``protocol``: progress goes through callbacks.
"""
