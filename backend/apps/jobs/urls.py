"""REST routes of the jobs app (mounted under /api/)."""

from django.urls import URLPattern, URLResolver, path

from backend.apps.jobs import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("jobs/", views.JobListCreateView.as_view(), name="jobs"),
    path("jobs/<int:job_id>/", views.JobDetailView.as_view(), name="job"),
    path("jobs/<int:job_id>/result/", views.JobResultView.as_view(), name="job-result"),
    path("jobs/<int:job_id>/result/csv/", views.JobResultCsvView.as_view(), name="job-result-csv"),
    path("jobs/<int:job_id>/events/", views.JobEventsView.as_view(), name="job-events"),
    path("jobs/<int:job_id>/cancel/", views.JobCancelView.as_view(), name="job-cancel"),
]
