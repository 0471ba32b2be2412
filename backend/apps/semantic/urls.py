"""REST routes of the semantic app (mounted under /api/)."""

from django.urls import URLPattern, URLResolver, path

from backend.apps.semantic import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("semantic/", views.SemanticModelView.as_view(), name="semantic-model"),
    path("semantic/concepts/", views.ConceptsView.as_view(), name="semantic-concepts"),
]
