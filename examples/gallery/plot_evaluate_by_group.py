"""
Evaluate a classifier overall and by group
==========================================

Fit a classifier on scikit-learn's breast-cancer data and evaluate it with
:func:`dartboard.evaluate`: every metric with a confidence interval.
"""

from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import dartboard

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, random_state=0)
model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_train, y_train)

result = dartboard.evaluate(y_test, y_score=model.predict_proba(X_test)[:, 1], random_state=0)
result.to_frame()
