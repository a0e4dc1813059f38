"""A small nested-header HCT (indent rows, local and global aggregates) shared by the HTML tests."""

NESTED = """
<table>
<caption>Number of accidents</caption>
<thead>
<tr><th rowspan="2" colspan="2">Event \\ Year</th><th colspan="2">2020</th><th colspan="2">2021</th><th rowspan="2">Total</th></tr>
<tr><th>Q1</th><th>Q2</th><th>Q1</th><th>Q2</th></tr>
</thead>
<tbody>
<tr><th colspan="2">Road</th><td></td><td></td><td></td><td></td></tr>
<tr><th></th><th>Car</th><td>1</td><td>2</td><td>3</td><td>4</td><td class="agg">10</td></tr>
<tr><th></th><th>Bus</th><td>5</td><td>6</td><td>7</td><td>8</td><td class="agg">26</td></tr>
<tr><th colspan="2">Water</th></tr>
<tr><th></th><th>Boat</th><td>&nbsp;9 </td><td>10</td><td>11</td><td>12</td><td class="agg">42</td></tr>
<tr><th colspan="2">Total</th><td class="agg">15</td><td class="agg">18</td><td class="agg">21</td><td class="agg">24</td><td class="agg">78</td></tr>
</tbody>
</table>
"""
